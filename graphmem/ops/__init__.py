"""Operations on a whole store: consistency check and repair, backup, dump and restore."""
