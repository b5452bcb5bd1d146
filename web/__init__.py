"""The Flask pages: a public page for the table, a host page, a JSON API and an SSE stream.

The web layer knows no rules: it serves ``Table.snapshot()`` (the public view) and forwards
requests to the table.
"""

from web.app import create_app
from web.sse import Broadcaster

__all__ = ["Broadcaster", "create_app"]
