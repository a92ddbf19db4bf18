-- Runs once, when the postgres container initialises an empty data directory
-- (/docker-entrypoint-initdb.d), in the database POSTGRES_DB (svc).
-- pgvector for the knowledge base (cosine distance, HNSW indexes); each subgraph creates
-- its own schema and tables through its migrations at start.
CREATE EXTENSION IF NOT EXISTS vector;
