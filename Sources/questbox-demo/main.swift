import QuestCore
