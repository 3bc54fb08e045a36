tilerast_lib.v
tilerast_default.v
tilerast_ice40.v
tilerast_full.v
tilerast_ice40_1x.v
tilerast_top_icebreaker.v
tilerast_top_ulx3s.v
