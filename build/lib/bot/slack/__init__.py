"""Slack edge: slack-bolt (async) listeners, Block Kit rendering, directory lookups."""
