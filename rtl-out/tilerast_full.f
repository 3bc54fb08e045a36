tilerast_lib.v
tilerast_default.v
tilerast_full.v
