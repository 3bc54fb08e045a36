tilerast_lib.v
tilerast_default.v
tilerast_ice40.v
tilerast_ice40_1x.v
tilerast_top_icebreaker.v
tilerast_top_hx8k.v
