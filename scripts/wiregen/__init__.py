"""The generator of the Swift side of the wire contract (scripts/generate-wire-swift): one
module per part of what it writes.
"""
