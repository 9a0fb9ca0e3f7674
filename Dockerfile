# okura in a container (docs/docker.md). Not built by this repository's CI.
#   docker build -t okura .
#   docker run --rm -p 8000:8000 -v okura-data:/data okura
FROM python:3.11-slim

WORKDIR /okura
COPY pyproject.toml README.md ./
COPY okura ./okura
RUN pip install --no-cache-dir . && useradd --create-home --uid 1000 okura \
    && mkdir /data && chown okura /data

USER okura
VOLUME /data
EXPOSE 8000
# 0.0.0.0: reachable from outside the container (okura binds 127.0.0.1 by default)
ENTRYPOINT ["okura", "serve", "--host", "0.0.0.0", "--port", "8000", "--data-dir", "/data"]
HEALTHCHECK --interval=10s --timeout=2s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/')"
