"""Test helpers: a Flask test client that behaves like the page's own forms.

``CsrfClient`` sends the session's CSRF token (``X-CSRF-Token``) with every
state-changing request, as the page's forms and scripts do, so tests of the
views need not scrape it.  Tests of the CSRF check itself use a plain
``FlaskClient``.  ``app.test_client_class = CsrfClient`` switches an app over.
"""
from __future__ import annotations

import secrets

from flask.testing import FlaskClient

from .security import CSRF_HEADER, SAFE_METHODS


class CsrfClient(FlaskClient):
    def csrf_token(self) -> str:
        with self.session_transaction() as sess:
            token = sess.get("csrf")
            if not isinstance(token, str) or len(token) < 32:
                token = sess["csrf"] = secrets.token_urlsafe(32)
        return token

    def open(self, *args, **kwargs):
        method = (kwargs.get("method") or "GET").upper()
        if args and not isinstance(args[0], str):  # an EnvironBuilder / environ: leave it alone
            return super().open(*args, **kwargs)
        if method not in SAFE_METHODS and self._cookies is not None:
            headers = dict(kwargs.pop("headers", None) or {})
            headers.setdefault(CSRF_HEADER, self.csrf_token())
            kwargs["headers"] = headers
        return super().open(*args, **kwargs)
