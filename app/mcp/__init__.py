"""MCP: the tools (tools) and the server that speaks them over stdio or HTTP (server)."""
