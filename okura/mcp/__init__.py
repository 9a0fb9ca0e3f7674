"""`okura mcp`: a Model Context Protocol server for coding agents (docs/mcp.md), on the
official `mcp` SDK. It reaches okura only through its public surfaces, the DynamoDB API and
the admin endpoints, so it works on an okura it starts and on one already running.

server.py builds and runs it; backend.py talks to okura; reads.py, writes.py, observe.py and
controls.py hold the tools; resources.py and prompts.py the resources and the prompt."""
