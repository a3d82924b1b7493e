-- The owner key alone identifies its project (issue 14: GET /v1/owner and the MCP server at /mcp):
-- projects are looked up by the SHA-256 hex of the key.
CREATE INDEX IF NOT EXISTS projects_owner_key_hash ON projects (owner_key_hash);
