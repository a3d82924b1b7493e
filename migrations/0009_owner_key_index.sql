-- The owner key alone identifies its project (GET /v1/owner, the MCP server at /mcp): looked up by the
-- SHA-256 hash of the key. Keys are 32 random bytes, so the hashes are unique.
CREATE UNIQUE INDEX IF NOT EXISTS projects_by_owner_key_hash ON projects (owner_key_hash);
