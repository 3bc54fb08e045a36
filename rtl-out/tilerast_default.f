tilerast_lib.v
tilerast_default.v
