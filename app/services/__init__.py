"""The services every entry point shares: the window, REST, /v1, MCP and the CLI call these."""
