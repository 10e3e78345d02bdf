"""The 404 page has to work at any depth: a host serves it for `/repo/a/b/c` as well as for `/repo/x`.

With `base_url`, the page carries `<base href=base_url>` and every link resolves from the
site root. Without it nothing at build time knows the root, so a tiny inline script at the
top of <head> finds it before any stylesheet, script or link is parsed: it asks, from the
page's directory upwards, for `assets/site.js` (HEAD, synchronous, so that it can insert a
`<base>` element before the parser reaches the rest of <head>), and the nearest directory
that has it is the root. External scripts cannot do this: `<script src>` needs the root it
is looking for. The site's CSP (`script-src 'self'`) gets this one script's sha256 hash on
404.html only. Under file:// (no server, no probing) the page is opened at the root anyway.

The deprecation of synchronous XHR is accepted here: it is one page, one to a few HEAD
requests, and the alternative (an asynchronous probe) would let the browser request the
stylesheet and scripts from the wrong directory first.
"""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import urlsplit

from .. import urls

PROBE = urls.asset_path("site.js")

ROOT_SCRIPT = (
    "(function(){var d=document,l=location,p,r,x;"
    "if(l.protocol==='file:')return;"
    "p=l.pathname.replace(/[^\\/]*$/,'');"
    "for(;;){try{x=new XMLHttpRequest();x.open('HEAD',p+'" + PROBE + "',false);x.send();"
    "if(x.status===200&&/javascript/.test(x.getResponseHeader('Content-Type')||'')){r=p;break;}}catch(e){}"
    "if(p==='/'||p==='')break;p=p.replace(/[^\\/]*\\/$/,'');}"
    "if(!r)return;x=d.createElement('base');x.href=r;d.head.appendChild(x);"
    "d.documentElement.setAttribute('data-root',r);})();"
)


def script_hash(script: str = ROOT_SCRIPT) -> str:
    """The CSP source for an inline script: 'sha256-<base64 of the digest of its exact text>'."""
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
