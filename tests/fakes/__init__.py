"""Local fakes of everything the chat edge talks to (Slack, Bot Framework, Graph, the core).

Each fake is a real HTTP server on 127.0.0.1 (or, for the core, an in-memory service that
honours RBAC tokens for real), so tests exercise the same code paths as production.
"""
