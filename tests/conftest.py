# --- rag_core fakes (owner: rag_core embeddings/generation/ingest tests) -------------------------
# Fixtures live in tests/fakes/; importing them here registers them for the whole suite.
from tests.fakes.embedder import hash_embedder  # noqa: E402,F401
from tests.fakes.network import no_network  # noqa: E402,F401
from tests.fakes.openai_server import fake_openai  # noqa: E402,F401
# --- end rag_core fakes ------------------------------------------------------------------------
