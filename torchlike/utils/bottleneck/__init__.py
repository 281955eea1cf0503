"""python -m torchlike.utils.bottleneck script.py [args]: a first look at
where a program spends its time (see __main__.py)."""
