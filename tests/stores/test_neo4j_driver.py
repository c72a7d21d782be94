"""The official driver runs with its Rust Bolt codec (``neo4j-rust-ext``): every memory read
from Neo4j carries its embedding, and decoding those floats in pure Python made search 4x slower."""

from neo4j._codec.packstream import v1


def test_driver_decodes_with_the_rust_extension():
    assert v1._rust_unpack is not None and v1._rust_pack is not None, (
        "neo4j-rust-ext is not active: pip install -r requirements.txt")
