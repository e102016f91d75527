"""Store an ONNX model's weights at half precision, computing at full precision.

``models/`` has a 15 MB budget, and a classifier wider than 1.5x would not
fit it with its weights at float32.  Storing each float weight as float16,
behind a ``Cast`` back to float32, halves the file.  onnxruntime folds those
casts into float32 constants when it loads the model, so the reader computes
exactly as before, at the same speed; only the weights are rounded to
float16 (about 3 significant digits), which moves the classifier's outputs
by well under 1 %.  Tiny tensors (biases, shapes) are left as they are: they
save nothing and some ops need them at full precision.

This runs at export time (``vision.classifier_train``); the ``onnx``
package it needs belongs to the training extra, not to the companion.
"""
from __future__ import annotations

from pathlib import Path

MIN_HALF_ELEMENTS = 16   # weights with fewer elements stay float32
HALF_SUFFIX = "__fp16"   # name of the stored half copy of a weight


def store_weights_half(path: Path) -> dict:
    """Rewrite the ONNX model at ``path`` in place with its float weights stored as float16.

    Returns {"weights": how many were halved, "bytes_before", "bytes_after"}.
    A model already stored this way is left as it is.
    """
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    path = Path(path)
    before = path.stat().st_size
    model = onnx.load(str(path))
    graph = model.graph
    if any(init.name.endswith(HALF_SUFFIX) for init in graph.initializer):
        return {"weights": 0, "bytes_before": before, "bytes_after": before}
    halves, casts, keep = [], [], []
    for init in graph.initializer:
        if init.data_type == TensorProto.FLOAT and int(np.prod(init.dims)) >= MIN_HALF_ELEMENTS:
            half = numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), init.name + HALF_SUFFIX)
            halves.append(half)
            casts.append(helper.make_node("Cast", [half.name], [init.name], to=TensorProto.FLOAT,
                                          name=init.name + "_to_float"))
        else:
            keep.append(init)
    del graph.initializer[:]
    graph.initializer.extend(keep + halves)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)  # the casts first: the graph stays topologically sorted
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return {"weights": len(halves), "bytes_before": before, "bytes_after": path.stat().st_size}
