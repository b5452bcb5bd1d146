"""The Flask pages: a public page for the table, a host page, a JSON API and an SSE stream.

The web layer knows no rules: it serves the table's views (``web/views.py``, the one place
where what leaves for the table or a seat is decided) and forwards requests to the table.
``web.app.create_app`` builds the app from its blueprints.
"""
