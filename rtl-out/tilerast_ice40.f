tilerast_lib.v
tilerast_default.v
tilerast_ice40.v
