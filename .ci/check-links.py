#!/usr/bin/env python3
"""Check every relative link and #anchor in the repository's Markdown files.

Anchors follow GitHub's rules: the heading's text as rendered, lowercased, with every
character other than letters, digits, '_', '-' and spaces removed and spaces turned into
'-'; a repeated heading gets '-1', '-2', ...; <a id="..."> and <a name="..."> count too.
Links inside fenced code blocks and inline code are not links. Prints each broken link
as file:line and exits with 1 if there is any.
"""
import os
import re
import subprocess
import sys
import unicodedata
from urllib.parse import unquote

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
FENCE = re.compile(r'^\s*(```|~~~)')
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
HTML_ANCHOR = re.compile(r'<a\s+[^>]*?(?:id|name)\s*=\s*"([^"]+)"', re.IGNORECASE)
INLINE_LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
REF_DEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
HTML_HREF = re.compile(r'<a\s+[^>]*?href\s*=\s*"([^"]+)"', re.IGNORECASE)
CODE_SPAN = re.compile(r'(`+)(.+?)\1')


def markdown_files():
    out = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard', '*.md'],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted(p for p in out.splitlines() if os.path.isfile(os.path.join(ROOT, p)))


def lines_outside_fences(text):
    fenced = False
    for number, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)     # links and images: their text
    text = re.sub(r'<[^>]+>', '', text)                         # inline HTML
    text = text.lower()
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in ' -_' or category[0] in 'LN' or category == 'Mn':
            kept.append(ch)
    return ''.join(kept).replace(' ', '-')


_anchors = {}


def anchors(path):
    if path not in _anchors:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        found, seen = set(), {}
        for _, line in lines_outside_fences(text):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else '%s-%d' % (base, n))
            for a in HTML_ANCHOR.findall(line):
                found.add(a)
        _anchors[path] = found
    return _anchors[path]


def links(text):
    for number, line in lines_outside_fences(text):
        m = REF_DEF.match(line)
        if m:
            yield number, m.group(1)
            continue
        bare = CODE_SPAN.sub('', line)
        for target in INLINE_LINK.findall(bare):
            yield number, target
        for target in HTML_HREF.findall(bare):
            yield number, target


def check(md):
    problems = []
    source = os.path.join(ROOT, md)
    with open(source, encoding='utf-8') as f:
        text = f.read()
    for number, target in links(text):
        if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target) or target.startswith('//'):
            continue                                            # http:, https:, mailto: ...
        path_part, _, anchor = target.partition('#')
        path_part = unquote(path_part.split('?')[0])
        if path_part:
            if path_part.startswith('/'):
                resolved = os.path.normpath(os.path.join(ROOT, path_part.lstrip('/')))
            else:
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part))
            if not os.path.exists(resolved):
                problems.append('%s:%d: %s: no such file' % (md, number, target))
                continue
        else:
            resolved = source
        if anchor and resolved.endswith('.md') and os.path.isfile(resolved):
            if unquote(anchor) not in anchors(resolved):
                problems.append('%s:%d: %s: no such anchor in %s'
                                % (md, number, target, os.path.relpath(resolved, ROOT)))
    return problems


def main():
    files = markdown_files()
    problems = [p for md in files for p in check(md)]
    for p in problems:
        print(p)
    if problems:
        print('%d broken link(s) in %d Markdown file(s)' % (len(problems), len(files)))
        return 1
    print('All relative links and anchors resolve in %d Markdown file(s)' % len(files))
    return 0


if __name__ == '__main__':
    sys.exit(main())
