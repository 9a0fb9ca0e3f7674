"""Exports to and imports from S3: where the objects go (objects.py), how items are
written and read in AWS's formats (formats.py), the jobs' records and their background
runner (jobs.py), and the two kinds of job (exporter.py, importer.py)."""
