"""Evaluation harness: retrieval, citation, answer, abstention and leakage metrics on a gold set."""
