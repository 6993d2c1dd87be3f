"""Generic report sections, in report order; each is ``section(ctx) -> Section | None``."""
from reports.sections import distributions, first_player, luck, player_dependence, policies, ratings, skill, variants

GENERIC = (first_player.section, luck.section, distributions.section, variants.section, player_dependence.section,
           policies.section, ratings.section, skill.section)
