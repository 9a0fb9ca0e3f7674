"""DynamoDB Streams: the record every item change appends (append.py), the stream
directory and shards (state.py), and reading them back (read.py)."""
