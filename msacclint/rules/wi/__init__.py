"""wi.*: weight initialisation and checkpoint loading."""
