"""Ingestion: catalog -> extraction -> chunking -> embeddings -> index, incrementally."""
