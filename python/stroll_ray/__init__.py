"""The Ray executor behind `stroll batch --ray ADDRESS` (see driver.py)."""
