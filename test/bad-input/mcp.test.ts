import { runCases } from './runner';
import { mcpCases } from './tables/mcp';

runCases('the MCP server', mcpCases());
