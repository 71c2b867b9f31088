"""Whether a class or function a dataset source is built from reads files itself.

``reads_files(ctx, func)`` answers for the callee of a call of the checked file: a class or
function of the file (its methods, or its body, call a file reader: ``open``,
``PIL.Image.open``, ``cv2.imread``, ``np.load``, ``os.listdir``, ...) or of the project
(``ProjectIndex.reads_files``, through its bases and what it calls). It gives where, as
``path:line``, or None when nothing shows it.
"""

from __future__ import annotations

import os
from typing import List, Optional

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import dotted
from msacclint.analysis.walk import descendants

#: calls that read data from files or list them (resolved names; ``open`` is the builtin);
#: the project layer's list (msacclint.project.sources) is the same
FILE_READERS = frozenset({
    "open", "io.open", "codecs.open", "PIL.Image.open", "cv2.imread", "cv2.imdecode", "cv2.VideoCapture",
    "numpy.load", "numpy.fromfile", "numpy.loadtxt", "numpy.genfromtxt", "numpy.memmap",
    "os.listdir", "os.walk", "os.scandir", "glob.glob", "glob.iglob", "json.load", "pickle.load", "h5py.File",
    "scipy.io.loadmat", "pandas.read_csv", "pandas.read_parquet", "pandas.read_pickle", "pandas.read_json",
    "pandas.read_table", "imageio.imread", "imageio.v2.imread", "imageio.v3.imread", "skimage.io.imread",
    "librosa.load", "soundfile.read", "scipy.io.wavfile.read", "tifffile.imread", "nibabel.load",
    "SimpleITK.ReadImage", "lmdb.open", "mindspore.dataset.vision.read_image", "mindspore.dataset.vision.read_file",
    "mindspore.dataset.vision.read_video", "mindspore.mindrecord.FileReader", "linecache.getlines",
    "csv.reader", "csv.DictReader", "tarfile.open", "zipfile.ZipFile", "pycocotools.coco.COCO"})


def reads_file(qualified: str) -> bool:
    """Whether a resolved callee reads (or lists) files."""
    return qualified in FILE_READERS or qualified.endswith((".read_text", ".read_bytes", ".iterdir"))


def reads_files(ctx: FileContext, func: cst.BaseExpression) -> Optional[str]:
    """Where the class or function ``func`` names reads files (see the module's docstring)."""
    name = dotted(func)
    if name is None:
        return None
    own = _own_definition(ctx, name)
    if own is not None:
        for node in descendants(own):
            if isinstance(node, cst.Call) and reads_file(ctx.resolve(node.func) or dotted(node.func) or ""):
                return f"{ctx.path}: {name}"
        return None
    project = ctx.project
    if project is None:
        return None
    evidence = project.reads_files(os.path.abspath(ctx.path), name)
    return None if evidence is None else str(evidence.where())


def _own_definition(ctx: FileContext, name: str) -> Optional[cst.CSTNode]:
    """The module-level class or function of the file named ``name``."""
    found: List[cst.CSTNode] = [stmt for stmt in ctx.module.body
                                if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and stmt.name.value == name]
    return found[-1] if found else None
