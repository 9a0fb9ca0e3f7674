"""The console's pages (static/: HTML, CSS and JavaScript modules, no build step), served
under /console/ by okura/server/console.py; docs/console.md."""
