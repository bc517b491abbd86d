"""`turnwire chat`: placeholder."""
