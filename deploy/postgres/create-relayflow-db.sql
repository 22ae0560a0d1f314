-- Run by the postgres image on the first start of an empty volume (docker-entrypoint-initdb.d): the database
-- that holds relayflow's campaign store (recipient lists, per-recipient outcomes, delivery reports), beside
-- Temporal's own. relayflow creates its tables itself at start-up. On an existing volume, run it by hand:
--   docker compose exec postgresql psql -U temporal -c 'CREATE DATABASE relayflow'
CREATE DATABASE relayflow;
