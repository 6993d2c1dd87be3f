"""Generic report sections, in report order; each is ``section(ctx) -> Section | None``."""
from reports.sections import distributions, first_player, policies, variants

GENERIC = (first_player.section, distributions.section, variants.section, policies.section)
