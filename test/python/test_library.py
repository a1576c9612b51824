"""tgc.Library: finding and loading libtgc.so, compile errors, and the
runtime's binding checks surfacing as exceptions with tgc_last_error()'s text
(they run before the GPU is touched, so they work here)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tgc_testing import ROOT, torch  # noqa: F401
import tgc
from tgc import library as L

GRAPH = """func.func @f(%x: tensor<4x8xf32> {tg.name = "x"}, %y: tensor<4x8xf32> {tg.name = "y"})
    -> (tensor<4x8xf32> {tg.name = "z"}) {
  %z = tg.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
"""


class Loading(unittest.TestCase):
    def test_env_file_and_folder(self):
        path = os.environ["TGC_LIBRARY"]
        self.assertEqual(L.find_library(), path)
        old = os.environ["TGC_LIBRARY"]
        try:
            os.environ["TGC_LIBRARY"] = os.path.dirname(path)
            self.assertEqual(os.path.basename(L.find_library()), "libtgc.so")
            os.environ["TGC_LIBRARY"] = "/nonexistent/libtgc.so"
            with self.assertRaisesRegex(tgc.LibraryNotFoundError, "TGC_LIBRARY=/nonexistent/libtgc.so does not exist"):
                L.find_library()
        finally:
            os.environ["TGC_LIBRARY"] = old

    def test_versioned_name(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.environ["TGC_LIBRARY"], os.path.join(d, "libtgc.so.0.1"))
            open(os.path.join(d, "libtgc_runtime.so"), "w").close()
            self.assertEqual(L._library_names(d), [os.path.join(d, "libtgc.so.0.1")])
            # A second copy in this process is refused with a message (not LLVM's abort); a
            # fresh process loads the versioned file.
            tgc.Library()
            with self.assertRaisesRegex(tgc.LibraryNotFoundError, "two copies of libtgc cannot share one"):
                tgc.Library(os.path.join(d, "libtgc.so.0.1"))
            code = "import tgc; tgc.Library().compile(%r).destroy(); print(tgc.Library().path)" % GRAPH
            env = dict(os.environ, TGC_LIBRARY=d, PYTHONPATH=os.path.join(ROOT, "python"))
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), os.path.join(d, "libtgc.so.0.1"))

    def test_not_a_library(self):
        with tempfile.NamedTemporaryFile(suffix=".so") as f:
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
            r = subprocess.run([sys.executable, "-c", "import tgc; tgc.Library(%r)" % f.name], capture_output=True,
                               text=True, env=env)
            self.assertIn("LibraryNotFoundError: cannot load %s" % f.name, r.stderr)


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = tgc.Library()
        cls.exe = cls.lib.compile(GRAPH, "--entry=f")

    def test_buffers(self):
        names = [(b.name, b.role, b.dtype, b.shape) for b in self.exe.buffers]
        self.assertEqual(names, [("x", "input", "f32", (4, 8)), ("y", "input", "f32", (4, 8)),
                                 ("z", "output", "f32", (4, 8))])
        self.assertEqual(self.exe.buffer("z").bytes, 128)
        with self.assertRaisesRegex(KeyError, "has no buffer 'w'"):
            self.exe.buffer("w")

    def test_compile_error_is_located(self):
        with self.assertRaises(tgc.TgcCompileError) as cm:
            self.lib.compile(GRAPH.replace("tensor<4x8xf32>, tensor<4x8xf32>", "tensor<4x8xf32>, tensor<4x9xf32>"))
        e = cm.exception
        self.assertEqual(e.status, 4)
        self.assertEqual(e.status_name, "compile error")
        self.assertRegex(e.message, r"<string>\"?:3:\d+\)?: error: use of value '%y' expects different type")

    def test_bad_option(self):
        with self.assertRaises(tgc.TgcError) as cm:
            self.lib.compile(GRAPH, "--arch=sm_1")
        self.assertIn("sm_1", str(cm.exception))

    def test_bad_plan_text(self):
        with self.assertRaises(tgc.TgcError) as cm:
            self.lib.load_plan_string("not a plan")
        self.assertEqual(cm.exception.status, 2)

    def binding_error(self, **bindings):
        with self.assertRaises(tgc.TgcBindingError) as cm:
            self.exe.run(bindings)
        return cm.exception.message

    def test_dtype_mismatch(self):
        x = torch.zeros(4, 8, dtype=torch.float16)
        y = z = torch.zeros(4, 8)
        self.assertEqual(self.binding_error(x=x, y=y, z=z), "binding 'x' has dtype f16 but the plan expects f32")

    def test_shape_mismatch(self):
        x = torch.zeros(8, 4)
        y = z = torch.zeros(4, 8)
        self.assertEqual(self.binding_error(x=x, y=y, z=z), "binding 'x' has shape [8,4] but the plan expects [4,8]")

    def test_strides_mismatch(self):
        x = torch.zeros(8, 4).t()
        y = z = torch.zeros(4, 8)
        self.assertEqual(self.binding_error(x=x, y=y, z=z),
                         "binding 'x' has strides [1,4] but the plan was compiled for strides [8,1]")

    def test_unknown_and_missing(self):
        t = torch.zeros(4, 8)
        # An unknown name among as many bindings as the plan has buffers; more
        # bindings than that are refused by count (the C API never reads past
        # what the plan can take).
        self.assertIn("unknown binding 'w'", self.binding_error(x=t, y=t, w=t))
        with self.assertRaises(tgc.TgcError) as cm:
            self.exe.run({"x": t, "y": t, "z": t, "w": t})
        self.assertIn("num_bindings is 4 but the plan", cm.exception.message)
        self.assertIn("missing binding for input 'y'", self.binding_error(x=t, z=t))

    def test_no_driver_after_good_bindings(self):
        t = torch.zeros(4, 8)
        with self.assertRaises(tgc.TgcError) as cm:
            self.exe.run({"x": t, "y": t, "z": t})
        # Host memory is never GPU memory: without a driver the run stops at the driver.
        self.assertIn(cm.exception.status, (5, 6, 8))

    def test_unbindable_dtype(self):
        with self.assertRaisesRegex(TypeError, "tgc has no element type for torch.float64"):
            self.exe.run({"x": torch.zeros(4, 8, dtype=torch.float64)})

    def test_cache_stats(self):
        stats = self.lib.cache_stats()
        self.assertIn("compiles", stats)

    def test_destroyed(self):
        exe = self.lib.compile(GRAPH)
        exe.destroy()
        with self.assertRaisesRegex(ValueError, "destroyed"):
            exe.workspace_size


if __name__ == "__main__":
    unittest.main()
