#!/usr/bin/env python3
"""Fails when an enumerator of the public headers has no comment.

doxygen's WARN_IF_UNDOCUMENTED says nothing of enumerators before doxygen 1.9.6's
WARN_IF_UNDOC_ENUM_VAL (Debian 12 has 1.9.4), so make check-doc reads its XML output:
every <enumvalue> needs a brief or detailed description. Usage: check-enumvalues.py XMLDIR
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET


def text(node):
    return "".join(node.itertext()).strip() if node is not None else ""


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    missing = []
    for path in sorted(glob.glob(os.path.join(argv[1], "*_8h.xml"))):
        for enum in ET.parse(path).iter("memberdef"):
            if enum.get("kind") != "enum":
                continue
            location = enum.find("location")
            where = "%s:%s" % (location.get("file"), location.get("line"))
            for value in enum.iter("enumvalue"):
                if not (text(value.find("briefdescription"))
                        or text(value.find("detaileddescription"))):
                    missing.append("%s: warning: enumerator %s of %s is not documented."
                                   % (where, value.findtext("name"), enum.findtext("name")))
    for m in missing:
        print(m)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
