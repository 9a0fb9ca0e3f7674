"""What several operations share: request rules and reply parts. The modules beside
this package are the routed operations, one per X-Amz-Target (server/router.py)."""
