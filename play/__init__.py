"""The web table: a person plays Žolík against the kit's agents in the browser.

``view`` is what the page may know (one seat's view), ``session`` a game at the table
(the human seat, the bots, hints, autosave as a JSONL replay), ``server`` the Starlette
app with its JSON API and the page. ``zolik play`` (``cli/play.py``) starts it.
"""
