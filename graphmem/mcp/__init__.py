"""graphmem as an MCP server: the library's tools for any MCP-capable agent (stdio or streamable HTTP)."""

from graphmem.mcp.server import GraphmemMcp

__all__ = ["GraphmemMcp"]
