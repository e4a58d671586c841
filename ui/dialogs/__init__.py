"""The dialogs: settings, pulling a model, a turn's trace, and how Docent works."""
