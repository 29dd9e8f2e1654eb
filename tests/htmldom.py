"""A tiny DOM for tests: parse an HTML page (or Chromium's ``--dump-dom`` output) into elements
and query them by tag, class and id — enough to check what a page shows without a browser
library.

Example:
    >>> dom = Dom('<div class="a b" id="x"><p>hi <b>there</b></p></div>')
    >>> [e.tag for e in dom.find_all(cls="a")], dom.by_id("x").text()
    (['div'], 'hi there')
"""
from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Element:
    def __init__(self, tag, attrs, parent=None):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children: list = []  # Elements and str

    @property
    def classes(self):
        return set((self.attrs.get("class") or "").split())

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter()

    def text(self, skip_ids=()) -> str:
        parts = []

        def walk(e):
            if e.attrs.get("id") in skip_ids or e.tag in ("script", "style", "title"):
                return
            for c in e.children:
                if isinstance(c, str):
                    parts.append(c)
                else:
                    walk(c)

        walk(self)
        return " ".join("".join(parts).split())

    def find_all(self, tag=None, cls=None):
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]


class Dom(HTMLParser, Element):
    def __init__(self, text: str):
        HTMLParser.__init__(self, convert_charrefs=True)
        Element.__init__(self, "#document", {})
        self._stack = [self]
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, self._stack[-1])
        self._stack[-1].children.append(e)
        if tag not in VOID:
            self._stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self._stack[-1].children.append(Element(tag, attrs, self._stack[-1]))

    def handle_endtag(self, tag):
        for i in range(len(self._stack) - 1, 0, -1):
            if self._stack[i].tag == tag:
                del self._stack[i:]
                return

    def handle_data(self, data):
        self._stack[-1].children.append(data)

    def by_id(self, ident):
        for e in self.iter():
            if e.attrs.get("id") == ident:
                return e
        return None
