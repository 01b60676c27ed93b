# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The commands a new user copies from the README and the docs work as written.

  * `cmake --install` into a fresh prefix: Debian's /usr/bin/python3 imports
    `gnuradio.beamform` from it with only PYTHONPATH set (no LD_LIBRARY_PATH,
    no ldconfig: the install RPATH), and every apps/*.grc compiles with grcc
    against the installed blocks (GRC_BLOCKS_PATH) and module; the station's
    generated script runs there (bounded, headless).
  * The README's Python snippets run against that prefix.
  * The grcc commands of docs/station_beamformer.md and docs/direction_finding.md
    run as written from the repository root against the build tree (only
    `build/` is replaced by this build's folder and the /tmp outputs by a
    temporary folder); the generated scripts run, bounded: the station one
    ends by itself, the direction-finding one (a QT GUI, offscreen here) runs
    for a few seconds and must then exit with status 0 on SIGTERM.
"""
import glob
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from gnuradio import beamform

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = "/usr/bin/python3"
# The build tree this module was imported from: <build>/test_modules/gnuradio/beamform.
BUILD = os.path.abspath(os.path.join(os.path.dirname(beamform.__file__), *[".."] * 3))


def _need_build_tree():
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        pytest.skip(f"gnuradio.beamform is not imported from a build tree ({beamform.__file__})")


def clean_env(**extra):
    """The environment of a new shell: no build-tree PYTHONPATH, no LD_LIBRARY_PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH",
                                                            "GRC_BLOCKS_PATH")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """A fresh install prefix: (prefix, the folder to put on PYTHONPATH)."""
    _need_build_tree()
    root = str(tmp_path_factory.mktemp("prefix"))
    subprocess.run(["cmake", "--install", BUILD, "--prefix", root], check=True,
                   stdout=subprocess.DEVNULL)
    inits = glob.glob(os.path.join(root, "**", "gnuradio", "beamform", "__init__.py"),
                      recursive=True)
    assert len(inits) == 1, inits
    return root, os.path.dirname(os.path.dirname(os.path.dirname(inits[0])))


def test_installed_module_imports_without_library_path(prefix):
    root, pythondir = prefix
    out = subprocess.run(
        [PYTHON, "-c", "from gnuradio import beamform; print(beamform.__file__); "
         "print(beamform.convert(beamform.sc16, 2, [1.0], 'cpu').device())"],
        env=clean_env(PYTHONPATH=pythondir), capture_output=True, text=True, cwd=root)
    assert out.returncode == 0, out.stderr
    module_file, device = out.stdout.split()
    assert module_file.startswith(root)
    assert device == "cpu"


def test_default_prefix_is_where_python_and_grc_look(prefix):
    """Installed into the configured prefix (default /usr/local), the module lands
    on /usr/bin/python3's own path and the blocks in a folder GRC reads."""
    from gnuradio import gr

    root, pythondir = prefix
    configured = next(line.split("=", 1)[1].strip() for line in
                      open(os.path.join(BUILD, "CMakeCache.txt"))
                      if line.startswith("CMAKE_INSTALL_PREFIX:"))
    target = os.path.join(configured, os.path.relpath(pythondir, root))
    path = subprocess.run([PYTHON, "-c", "import sys; print('\\n'.join(sys.path))"],
                          env=clean_env(), capture_output=True, text=True).stdout.split()
    assert target in path, (target, path)
    grc_paths = gr.prefs().get_string("grc", "global_blocks_path", "").split(":")
    assert os.path.join(configured, "share", "gnuradio", "grc", "blocks") in grc_paths


def test_installed_libraries_carry_a_relative_rpath(prefix):
    root, _ = prefix
    libs = glob.glob(os.path.join(root, "**", "libgnuradio-beamform.so.*"), recursive=True)
    modules = glob.glob(os.path.join(root, "**", "beamform_python*.so"), recursive=True)
    assert libs and modules
    for path in [libs[0], modules[0]]:
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True,
                                 check=True).stdout
        assert "$ORIGIN" in dynamic, path


@pytest.mark.parametrize("grc", sorted(glob.glob(os.path.join(REPO, "apps", "*.grc"))),
                         ids=os.path.basename)
def test_grcc_against_the_installed_blocks(prefix, grc, tmp_path):
    root, pythondir = prefix
    blocks_dir = os.path.join(root, "share", "gnuradio", "grc", "blocks")
    out = subprocess.run(["grcc", "-o", str(tmp_path), grc], capture_output=True, text=True,
                         env=clean_env(PYTHONPATH=pythondir, GRC_BLOCKS_PATH=blocks_dir))
    assert out.returncode == 0, out.stdout + out.stderr
    assert glob.glob(str(tmp_path / "*.py"))
    if os.path.basename(grc) == "station_beamformer.grc":
        # A bounded headless run of the generated script, on the installed module alone.
        out_dir = tmp_path / "fil"
        ran = subprocess.run([PYTHON, str(tmp_path / "station_beamformer.py"), "--n-spectra",
                              "512", "--device", "cpu", "--out-dir", str(out_dir)],
                             env=clean_env(PYTHONPATH=pythondir), capture_output=True,
                             text=True, timeout=300, cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert len(list(out_dir.glob("station_beam*.fil"))) == 25


def code_blocks(markdown, languages):
    """The fenced code blocks of a markdown file whose info string is in languages."""
    text = open(os.path.join(REPO, markdown)).read()
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)
            if lang in languages]


def test_readme_python_snippets_run_against_an_install(prefix, tmp_path):
    _, pythondir = prefix
    snippets = code_blocks("README.md", ("python",))
    assert snippets
    for k, code in enumerate(snippets):
        script = tmp_path / f"readme_snippet{k}.py"
        script.write_text(code)
        out = subprocess.run([PYTHON, str(script)], env=clean_env(PYTHONPATH=pythondir),
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert out.returncode == 0, f"README snippet {k}:\n{code}\n{out.stderr}"


def shell_commands(block):
    """Commands of a shell code block: continuation lines joined, comments dropped."""
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        line = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
        if line:
            commands.append(line)
    return commands


# Generated scripts that run a QT GUI until closed: run for GUI_SECONDS, then SIGTERM.
GUI_SCRIPTS = ("direction_finding_grc.py",)
GUI_SECONDS = 6


@pytest.mark.parametrize("doc", ["docs/station_beamformer.md", "docs/direction_finding.md"])
def test_docs_grcc_commands_run_as_written(doc, tmp_path):
    _need_build_tree()
    blocks = [b for b in code_blocks(doc, ("sh",)) if "grcc " in b]
    assert len(blocks) == 1, f"{doc}: expected one sh block with grcc"
    commands = shell_commands(blocks[0])
    assert any(c.startswith(("grcc", "GRC_BLOCKS_PATH")) and "grcc" in c for c in commands)
    ran = 0
    for command in commands:
        if "gnuradio-companion" in command:
            continue  # opens the editor: not for a test
        # The doc's /tmp paths first: the build tree may itself be under /tmp.
        command = re.sub(r"/tmp/(\w+)", lambda m: str(tmp_path / m.group(1)), command)
        command = command.replace("build/test_modules", os.path.join(BUILD, "test_modules"))
        env = clean_env()
        proc = subprocess.Popen(["bash", "-c", command], cwd=REPO, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        if any(s in command for s in GUI_SCRIPTS):
            time.sleep(GUI_SECONDS)
            assert proc.poll() is None, f"{command}\nended early:\n{proc.stdout.read()}"
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            output, _ = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        assert proc.returncode == 0, f"{command}\n{output}"
        ran += 1
    assert ran >= 2  # grcc and the generated script
    if "station" in doc:
        assert len(glob.glob(str(tmp_path / "*" / "*.fil"))) > 0
