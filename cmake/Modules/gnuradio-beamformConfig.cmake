find_package(PkgConfig)

PKG_CHECK_MODULES(PC_GR_BEAMFORM gnuradio-beamform)

FIND_PATH(
    GR_BEAMFORM_INCLUDE_DIRS
    NAMES gnuradio/beamform/api.h
    HINTS $ENV{BEAMFORM_DIR}/include
        ${PC_BEAMFORM_INCLUDEDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/include
          /usr/local/include
          /usr/include
)

FIND_LIBRARY(
    GR_BEAMFORM_LIBRARIES
    NAMES gnuradio-beamform
    HINTS $ENV{BEAMFORM_DIR}/lib
        ${PC_BEAMFORM_LIBDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/lib
          ${CMAKE_INSTALL_PREFIX}/lib64
          /usr/local/lib
          /usr/local/lib64
          /usr/lib
          /usr/lib64
          )

include("${CMAKE_CURRENT_LIST_DIR}/gnuradio-beamformTarget.cmake")

INCLUDE(FindPackageHandleStandardArgs)
FIND_PACKAGE_HANDLE_STANDARD_ARGS(GR_BEAMFORM DEFAULT_MSG GR_BEAMFORM_LIBRARIES GR_BEAMFORM_INCLUDE_DIRS)
MARK_AS_ADVANCED(GR_BEAMFORM_LIBRARIES GR_BEAMFORM_INCLUDE_DIRS)
