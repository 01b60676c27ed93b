# Which GPU backends to build.
#
#   ENABLE_CUDA (default ON)   build the CUDA backend when nvcc is found
#   ENABLE_HIP  (default OFF)  build the HIP backend when hipcc is found
#   CMAKE_CUDA_ARCHITECTURES   default "90": sm_90 machine code plus compute_90 PTX,
#                              which newer GPUs JIT-compile
#   BEAMFORM_HIP_ARCHITECTURES default "gfx90a;gfx940"
#
# Sets BEAMFORM_HAVE_CUDA / BEAMFORM_HAVE_HIP and a one-line summary for each.
include(CheckLanguage)

option(ENABLE_CUDA "Build the CUDA backend when nvcc is found" ON)
option(ENABLE_HIP "Build the HIP backend (AMD) when hipcc is found" OFF)
set(BEAMFORM_HIP_ARCHITECTURES "gfx90a;gfx940" CACHE STRING "AMD GPU targets for hipcc")

set(BEAMFORM_HAVE_CUDA OFF)
set(BEAMFORM_CUDA_SUMMARY "(nvcc not found)")
if(ENABLE_CUDA)
  # nvcc is often installed off PATH, in /usr/local/cuda.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(BEAMFORM_HAVE_CUDA ON)
    set(BEAMFORM_CUDA_SUMMARY
        "(nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  endif()
else()
  set(BEAMFORM_CUDA_SUMMARY "(ENABLE_CUDA=OFF)")
endif()

set(BEAMFORM_HAVE_HIP OFF)
set(BEAMFORM_HIP_SUMMARY "(ENABLE_HIP=OFF)")
if(ENABLE_HIP)
  find_program(HIPCC_EXECUTABLE hipcc)
  find_library(AMDHIP64_LIBRARY amdhip64)
  if(HIPCC_EXECUTABLE AND AMDHIP64_LIBRARY)
    set(BEAMFORM_HAVE_HIP ON)
    string(REPLACE ";" ", " _archs "${BEAMFORM_HIP_ARCHITECTURES}")
    set(BEAMFORM_HIP_SUMMARY "(${HIPCC_EXECUTABLE}, ${_archs}; compile-checked, untested on hardware)")
  else()
    set(BEAMFORM_HIP_SUMMARY "(hipcc or libamdhip64 not found)")
  endif()
endif()

# beamform_hip_objects(<out_var> <source>...)
# Compiles GPU sources (written against kernels/common/gpu_portable.h) with
# hipcc into position-independent objects for the AMD targets.
function(beamform_hip_objects out_var)
  set(_objects)
  set(_arch_flags)
  foreach(_arch ${BEAMFORM_HIP_ARCHITECTURES})
    list(APPEND _arch_flags --offload-arch=${_arch})
  endforeach()
  get_directory_property(_defs COMPILE_DEFINITIONS)
  foreach(_src ${ARGN})
    get_filename_component(_name ${_src} NAME_WE)
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_src})
    string(REPLACE "/" "_" _rel ${_rel})
    set(_obj ${CMAKE_CURRENT_BINARY_DIR}/hip/${_rel}.o)
    add_custom_command(
      OUTPUT ${_obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/hip
      COMMAND ${HIPCC_EXECUTABLE} -x hip -std=c++17 -O3 -fPIC ${_arch_flags}
              -DBEAMFORM_HAVE_HIP
              -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/lib
              -I${PROJECT_SOURCE_DIR}/kernels
              -c ${_src} -o ${_obj}
      DEPENDS ${_src}
      IMPLICIT_DEPENDS CXX ${_src}
      COMMENT "hipcc ${_rel}"
      VERBATIM)
    list(APPEND _objects ${_obj})
  endforeach()
  set(${out_var} ${_objects} PARENT_SCOPE)
endfunction()
