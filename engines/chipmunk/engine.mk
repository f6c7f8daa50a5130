# chipmunk: Chipmunk 7: cpShapeSegmentQuery on the relative motion.
ENGINE_APT := libchipmunk-dev
ENGINE_LIBS := -lchipmunk
