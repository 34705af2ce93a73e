# lit configuration for linnet's test suite.
#
# Every test is a source file (`.linnet`, `.test`) whose RUN lines call the
# real `linnet` binary and check its output with FileCheck. Fixture packages
# live in `Inputs/` folders, which are not tests themselves.
import os
import sys

import lit.formats

config.name = "linnet"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".linnet", ".test"]
# MLIR tests of the dialect and the code generator (test/dialect,
# test/conversion, test/codegen) run through linnet-opt.
config.suffixes.append(".mlir")
config.excludes = ["Inputs", "unit", "fuzz", "data", "lit-helpers", "lit.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
build_dir = lit_config.params.get("build_dir", os.path.join(config.test_source_root, "..", "build"))
build_dir = os.path.abspath(build_dir)
config.test_exec_root = os.path.join(build_dir, "test-lit")

llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-19/bin")
repo_root = os.path.abspath(os.path.join(config.test_source_root, ".."))

# The runtime's runner (runtime/cli), built without LLVM or MLIR. Listed before
# %linnet, which is a prefix of it (substitutions apply in order).
config.substitutions.append(("%linnet-run", os.path.join(build_dir, "bin", "linnet-run")))
config.substitutions.append(("%linnet-opt", os.path.join(build_dir, "bin", "linnet-opt")))
# One Hugging Face reference case at both dtypes (test/parity/run-case.sh).
config.substitutions.append(("%parity-case", " ".join([
    os.path.join(config.test_source_root, "parity", "run-case.sh"),
    os.path.join(build_dir, "bin", "linnet"), os.path.join(build_dir, "bin", "linnet-parity")])))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%linnet", os.path.join(build_dir, "bin", "linnet") + " --no-color"))
config.substitutions.append(("%expect-exit", os.path.join(config.test_source_root, "lit-helpers", "expect-exit")))
config.substitutions.append(("%repo", repo_root))
config.substitutions.append(("%stdlib", os.path.join(repo_root, "stdlib")))
config.substitutions.append(("%models", os.path.join(repo_root, "models")))
config.substitutions.append(("%testdata", os.path.join(repo_root, "test", "data")))
config.substitutions.append(("%shared", os.path.abspath(os.path.join(repo_root, "..", "shared"))))

# FileCheck, not, count and split-file come from Debian's llvm-19-tools.
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", "")])
config.environment["LINNET_STD"] = os.path.join(repo_root, "stdlib")
# Diagnostics must not depend on the terminal.
config.environment.pop("LINNET_COLOR", None)
