"""Features of a seat's observation for learned agents and the planner: hand features
(the hand search's plan as counts) and card features (``keep``, ``danger``, ``fits``,
``held``). The planner's rules of thumb live here once; the planner calls them."""
