import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TGC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tgc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tgc_src", config.tgc_src_root))
config.substitutions.append(("%tgc_obj", config.tgc_obj_root))
# A sanitizer build's libtgc.so loaded into an uninstrumented python needs
# the sanitizer runtime preloaded (scripts/sanitize.sh sets TGC_SAN_PRELOAD).
preload = os.environ.get("TGC_SAN_PRELOAD", "")
config.substitutions.append(
    ("%ctypes_env", "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:allow_user_poisoning=0" % preload
     if preload else ""))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tgc_tools_dir, config.llvm_tools_dir]
tools = ["tg-opt", "tg-run", "tg-compile", "tg-emit-kernels"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Building against the installed tree (test/Install): the same CMake,
# generator, compilers and CUDA toolkit as this build.
# (Longer names first: lit substitutes in list order.)
config.substitutions.append(("%cmake_generator", '"%s"' % config.cmake_generator))
config.substitutions.append(("%cmake", '"%s"' % config.cmake_command))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cuda_home", config.tgc_cuda_home))
# libtgc.so is self-contained (LLVM/MLIR linked in) only in this mode.
if config.tgc_static_llvm:
    config.available_features.add("static-llvm")

# Built from a git checkout of this tree (not an archive): the version names
# the commit.
import subprocess
try:
    top = subprocess.run(["git", "-C", config.tgc_src_root, "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if top.returncode == 0 and os.path.realpath(top.stdout.strip()) == os.path.realpath(config.tgc_src_root):
        config.available_features.add("git-checkout")
except OSError:
    pass

# Tests that need (or must not see) a GPU: "gpu" is set where a driver answers.
import shutil, subprocess
if shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0:
    config.available_features.add("gpu")
