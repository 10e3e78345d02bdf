"""papersite: research-paper abstracts in, a static documentation-style reading site out."""
