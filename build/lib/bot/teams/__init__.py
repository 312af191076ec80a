"""Microsoft Teams edge: Bot Framework (CloudAdapter) endpoint, Graph identity, Adaptive Cards."""
