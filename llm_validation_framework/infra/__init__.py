"""Infrastructure every layer may use: settings (config.ini and environment), provider names, hosts and URLs."""
