"""Exports to, imports and bulk puts from S3: where the objects go (objects.py), how items
are written and read in AWS's formats (formats.py), what imports and bulk puts share in
reading them (loading.py), the jobs' records (job_records.py), and the three kinds of job
(exporter.py, importer.py, bulk.py)."""
