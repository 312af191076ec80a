"""BenefitsBot chat edge: Slack and Microsoft Teams in front of :mod:`rag_core`.

The edge turns "who is asking, where" into signed RBAC tokens (the asker's, plus one per
distinct audience scope when others can read the reply), calls the core, and renders its
:class:`rag_core.types.Answer` for each platform. ``rag_core`` never imports this package.
"""
